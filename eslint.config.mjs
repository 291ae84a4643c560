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
    // Raw SQL goes through the one dialect: a tenant-scoped repository's sql() or database/sql.ts's unscopedSql.
    // The audit loader's COPYs run on a connection of their own, outside TypeORM.
    files: ['src/**/*.ts'],
    ignores: ['src/database/**', 'src/modules/audit/audit.loader.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='query'][arguments.0.type=/^(Literal|TemplateLiteral)$/], CallExpression[callee.property.name='query'][arguments.0.name=/^[A-Z][A-Z0-9_]*$/]",
          message: 'Run raw SQL through the repository base sql() or unscopedSql() (src/database/sql.ts), not .query().',
        },
      ],
    },
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
);
