// MX host names of disposable-mail providers, matched exactly. They catch the
// provider's fresh domains that the list package has not caught up with: a
// new domain still has to point its MX at the provider's servers.
//
// Source: the tempmail_mx_servers list of duhow/mail-checker
// (mail_checker/const.py, which cites https://www.usercheck.com/providers),
// not independently re-checked here. Only single-purpose disposable services
// are kept; general mail hosts and alias/forwarding services on that list
// (mailhostbox, simplelogin, anonaddy, skiff) are left out because they carry
// ordinary, long-lived mailboxes too. Operators add more with the
// `disposable_mx_hosts` setting.
export const KNOWN_DISPOSABLE_MX_HOSTS: readonly string[] = [
  'mail.mailinator.com',
  'mail2.mailinator.com',
  'smtp.yopmail.com',
  'in.mail.tm',
  'mx.discard.email',
  'mx.moakt.com',
  'mx.temp-mail.io',
  'mx2.temp-mail.io',
  'prd-smtp.10minutemail.com',
  'mx.1secmail.com',
  'generator.email',
  'emailfake.com',
  'email-fake.com',
]
