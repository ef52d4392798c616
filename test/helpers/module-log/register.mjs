// `node --import ./register.mjs`: logs every module resolved after it (see hooks.mjs).
import { register } from 'node:module'

register(new URL('./hooks.mjs', import.meta.url))
