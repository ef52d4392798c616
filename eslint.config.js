// eslint (`npm run lint`): neostandard, with its TypeScript support
// (typescript-eslint). The rules turned off below are where neostandard
// disagrees with the established house style or misreads a pattern the code
// uses on purpose; each says which.
import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'node_modules/**', 'prisma/generated/**', '.cache/**'],
  }),
  {
    rules: {
      // House style: short objects on one line, long ones one property a line,
      // trailing commas in multi-line literals, continuation lines indented by
      // meaning rather than by the rule's column.
      '@stylistic/object-property-newline': 'off',
      '@stylistic/object-curly-newline': 'off',
      '@stylistic/comma-dangle': 'off',
      '@stylistic/indent': 'off',
      '@stylistic/multiline-ternary': 'off',
      '@stylistic/no-multiple-empty-lines': 'off',
      '@stylistic/brace-style': 'off',
      '@stylistic/no-mixed-operators': 'off',
      '@stylistic/quote-props': 'off',
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: true }],
      curly: 'off',
      // `void promise` marks a promise deliberately not awaited.
      'no-void': 'off',
      // Promise executors name their functions for what they do (resolve a socket, fail a wait).
      'promise/param-names': 'off',
      // A TypeBox schema and its static type share one name (`const Row = Type.Object(...)`, `type Row = Static<typeof Row>`).
      '@typescript-eslint/no-redeclare': 'off',
      // Control characters are matched on purpose (input guards, terminal output, CSV injection).
      'no-control-regex': 'off',
      // Loop flags are set by callbacks and events, which the rule cannot see.
      'no-unmodified-loop-condition': 'off',
      // Rows, settings and wire fields are snake_case by design.
      camelcase: 'off',
      // A timer handle declared before the closure that clears it, assigned once after.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // `cache ??= load()` memoises in an arrow's body.
      'no-return-assign': 'off',
      // `new Compile(...)`-style constructors that validate by throwing.
      'no-new': 'off',
      // `${...}` in a plain string is test data for template handling.
      'no-template-curly-in-string': 'off',
    },
  },
]
