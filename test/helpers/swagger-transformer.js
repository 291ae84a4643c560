// Runs the @nestjs/swagger CLI plugin under ts-jest, so that the tests see the same OpenAPI
// document as `nest build` produces (DTO properties introspected from types and comments).
const transformer = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (compiler) =>
  transformer.before({ classValidatorShim: true, introspectComments: true, dtoFileNameSuffix: ['.dto.ts'] }, compiler.program);
