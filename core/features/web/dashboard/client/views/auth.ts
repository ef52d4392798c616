// Signed out: sign up or log in. Either answer carries the personal key,
// which goes to sessionStorage; a new account's key is shown once.
import { call, session, type Login, type Signup } from '../api.ts'
import { errorBox, field, h, uid } from '../dom.ts'

/** The address input. Typed as text (the server checks the address) with the login-name autocomplete hint password managers use. */
const addressInput = (autocomplete: string) => h('input', { type: 'text', name: 'address', autocomplete, spellcheck: 'false', autocapitalize: 'none', required: true, maxlength: 320 })

export function renderAuth (main: HTMLElement, signedIn: (key: string, fresh: boolean) => void): void {
  const signupError = h('div')
  const loginError = h('div')
  const signupAddress = addressInput('username')
  const signupPassword = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: 8, maxlength: 1024 })
  const signupName = h('input', { type: 'text', name: 'name', autocomplete: 'name', maxlength: 200 })
  const loginAddress = addressInput('username')
  const loginPassword = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true, maxlength: 1024 })

  const submit = (form: HTMLFormElement, box: HTMLElement, action: () => Promise<{ key: string, fresh: boolean }>) => {
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      const button = form.querySelector('button')!
      button.disabled = true
      box.replaceChildren()
      action().then(({ key, fresh }) => {
        session.set(key)
        signedIn(key, fresh)
      }, (err: Error) => {
        box.replaceChildren(errorBox(err.message))
        button.disabled = false
      })
    })
  }

  const signupTitle = uid('h')
  const signupForm = h('form', { 'aria-labelledby': signupTitle, novalidate: false },
    h('h2', { id: signupTitle }, 'Create an account'),
    field('E-mail address', signupAddress),
    field('Password', signupPassword, 'At least 8 characters.'),
    field('Name (optional)', signupName),
    signupError,
    h('button', { type: 'submit', class: 'primary' }, 'Sign up'))
  submit(signupForm, signupError, async () => {
    const answer = await call<Signup>('POST', '/api/auth/signup', { email: signupAddress.value.trim(), password: signupPassword.value, ...(signupName.value.trim() ? { name: signupName.value.trim() } : {}) })
    return { key: answer.user.api_key!, fresh: true }
  })

  const loginTitle = uid('h')
  const loginForm = h('form', { 'aria-labelledby': loginTitle },
    h('h2', { id: loginTitle }, 'Log in'),
    field('E-mail address', loginAddress),
    field('Password', loginPassword),
    loginError,
    h('button', { type: 'submit', class: 'primary' }, 'Log in'))
  submit(loginForm, loginError, async () => {
    const answer = await call<Login>('POST', '/api/auth/login', { email: loginAddress.value.trim(), password: loginPassword.value })
    return { key: answer.api_key, fresh: false }
  })

  main.replaceChildren(
    h('h1', { tabindex: -1 }, 'Dashboard'),
    h('p', {}, 'Run the extraction tools from a form, watch them work and download the rows. Your key stays in this browser tab only.'),
    h('div', { class: 'columns' }, h('section', { class: 'card' }, loginForm), h('section', { class: 'card' }, signupForm)))
}
