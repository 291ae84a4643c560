import tseslint from 'typescript-eslint';
import borders from './eslint/module-borders.mjs';

/** End-to-end suites that read no untyped response body: the no-unsafe-* rules hold for them as for src. */
const TYPED_E2E_SUITES = [
  'api-keys',
  'appointment-types',
  'audit-log',
  'audit-partitions-migration',
  'auth',
  'booking-pages',
  'booking-pages-public',
  'browser',
  'bulk-import-crash',
  'cli',
  'clock',
  'cors',
  'dependency-outages',
  'email-api',
  'email-consent',
  'email-crash',
  'email-sending',
  'email-sequences',
  'error-logging',
  'errors',
  'events',
  'forms',
  'forms-demo',
  'forms-events-audit',
  'forms-isolation',
  'forms-submissions',
  'graceful-shutdown',
  'idempotency-crash',
  'interrupt',
  'isolation',
  'last-owner-key',
  'manage-links',
  'messaging-demo',
  'openapi',
  'patient-access-log',
  'patient-input',
  'patients',
  'patients-bulk-import',
  'patients-list',
  'patients-records',
  'query-plans',
  'queue-dashboard',
  'rate-limits',
  'redis-outage',
  'reminders',
  'reminders-crash',
  'request-logging',
  'response-headers',
  'retention',
  'route-policies',
  'scheduling-appointments',
  'scheduling-demo',
  'scheduling-providers',
  'schema-drift',
  'secrets-at-rest',
  'settings',
  'sms',
  'sms-crash',
  'sms-templates',
  'transactions',
  'trust-proxy',
  'unavailable',
  'unsubscribe-page',
  'webhooks',
  'worker-health',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    // A module reaches another only through its front door, src/modules/<m>/index.ts (see eslint/module-borders.mjs).
    files: ['src/modules/**/*.ts'],
    plugins: { borders },
    rules: { 'borders/module-borders': 'error' },
  },
  {
    // Shared mechanisms depend on no domain module: a module plugs into them (AuthModule.forRoot(…)),
    // never the other way round.
    files: ['src/common/**/*.ts', 'src/database/**/*.ts', 'src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/modules/**'],
              message:
                'src/common, src/database and src/config import no domain module; let the module provide what common needs (see AuthModule.forRoot).',
            },
          ],
        },
      ],
    },
  },
  {
    // End-to-end suites that still read JSON response bodies as `Json` (test/helpers/app.ts, the tests' one
    // `any`): reading a member of one, passing it on or returning it is what these rules flag, and the expect()
    // around it is the check. Everything else in tests is linted as src is: unit specs, the helpers (which type
    // what they answer with the API's DTOs) and the suites below, which type what they read (`get<Problem>()`,
    // `post<{ messageId: string }>()`). A suite moves to that list once it reads no untyped body; new suites
    // should start there.
    files: ['test/e2e/**/*.ts'],
    ignores: TYPED_E2E_SUITES.map((name) => `test/e2e/${name}.e2e-spec.ts`),
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off', // `const { id } = res.body`
      '@typescript-eslint/no-unsafe-member-access': 'off', // `res.body.items[0].id`
      '@typescript-eslint/no-unsafe-argument': 'off', // `expect(res.body.id).toBe(…)`, `api.get(`/x/${res.body.id}`)`
      '@typescript-eslint/no-unsafe-call': 'off', // `res.body.items.map(…)`
      '@typescript-eslint/no-unsafe-return': 'off', // `(await api.get(url)).body`
    },
  },
);
