// Request schemas of the account endpoints (TypeBox: validation and types in one).
import { Type } from 'typebox'

export const SignupBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
})

export const LoginBody = Type.Object({
  email: Type.String({ maxLength: 320 }),
  password: Type.String({ maxLength: 1024 }),
})

export const UpdateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
  new_password: Type.Optional(Type.String({ maxLength: 1024 })),
})

export const MintTokenBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  tools: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64 }),
  expires_in_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
})

export const TokenParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })
