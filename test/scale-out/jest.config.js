// The scale-out proof's suite (.ci/scale-out starts the engines and the processes it talks to). Not part
// of `npm test`: it needs what that script starts. Compiled as the e2e suites are.
const { projects } = require('../../jest.config.js');
const e2e = projects.find((p) => p.displayName === 'e2e');

module.exports = {
  rootDir: '../..',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/scale-out/*.scale-spec.ts'],
  testTimeout: 60000,
  transform: e2e.transform,
  transformIgnorePatterns: e2e.transformIgnorePatterns,
};
