import tseslint from 'typescript-eslint';
import borders from './eslint/module-borders.mjs';

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
              message: 'src/common, src/database and src/config import no domain module; let the module provide what common needs (see AuthModule.forRoot).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON response bodies as `Json` (test/helpers/app.ts, the tests' one `any`): reading a member
    // of one, passing it on or returning it is what these rules flag, and the expect() around it is the check.
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off', // `const { id } = res.body`
      '@typescript-eslint/no-unsafe-member-access': 'off', // `res.body.items[0].id`
      '@typescript-eslint/no-unsafe-argument': 'off', // `expect(res.body.id).toBe(…)`, `api.get(`/x/${res.body.id}`)`
      '@typescript-eslint/no-unsafe-call': 'off', // `res.body.items.map(…)`
      '@typescript-eslint/no-unsafe-return': 'off', // helpers that answer a body (`createPatient`)
    },
  },
);
