// A Jest transformer for DTOs and controllers: compiles them with the @nestjs/swagger CLI plugin, as `nest build`
// does, so that the tests see the same OpenAPI document (properties introspected from types and comments,
// response types from return types). The plugin needs a type-checked program: one is built per process, and
// only when a file is not in Jest's cache. The cache key covers every source file, since a DTO's document
// depends on the types it imports; computing it needs no program, so a fresh worker with a warm cache builds
// none.
const { createHash } = require('node:crypto');
const { readdirSync, readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');
const ts = require('typescript');
const swaggerPlugin = require('@nestjs/swagger/plugin');

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');
const PLUGIN_OPTIONS = JSON.parse(readFileSync(join(ROOT, 'nest-cli.json'), 'utf8')).compilerOptions.plugins.find(
  (plugin) => plugin.name === '@nestjs/swagger',
).options;

/** What else decides the output: this file, the plugin's options and the compiler's. */
const CONFIGURATION = ['test/helpers/swagger-transformer.js', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json']
  .map((file) => readFileSync(join(ROOT, file), 'utf8'))
  .join('\0');

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

let sources; // { stamp, hash }: the hash of src/ for the newest modification time seen
function sourcesHash() {
  const files = sourceFiles(SRC);
  const stamp = `${files.length}:${Math.max(...files.map((file) => statSync(file).mtimeMs))}`;
  if (sources?.stamp !== stamp) {
    const hash = createHash('sha256');
    for (const file of files.sort()) hash.update(file).update(readFileSync(file));
    sources = { stamp, hash: hash.digest('hex') };
  }
  return sources.hash;
}

let program;
function compilerProgram() {
  if (!program) {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, 'tsconfig.build.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    );
    // Without outDir and rootDir the plugin's imports point at the sources Jest loads, not at dist/.
    const { outDir: _outDir, rootDir: _rootDir, ...options } = config.options;
    Object.assign(options, { sourceMap: false, inlineSourceMap: true, inlineSources: true });
    program = ts.createProgram({ rootNames: config.fileNames, options });
  }
  return program;
}

module.exports = {
  getCacheKey(source, filename) {
    return createHash('sha256')
      .update(CONFIGURATION)
      .update(ts.version)
      .update(filename)
      .update(source)
      .update(sourcesHash())
      .digest('hex');
  },
  process(source, filename) {
    const compiled = compilerProgram();
    const sourceFile = compiled.getSourceFile(filename);
    if (!sourceFile) throw new Error(`${filename} is not in tsconfig.build.json's program`);
    let code;
    const result = compiled.emit(sourceFile, (name, text) => (name.endsWith('.js') ? (code = text) : undefined), undefined, false, {
      before: [swaggerPlugin.before(PLUGIN_OPTIONS, compiled)],
    });
    if (code === undefined) throw new Error(`${filename}: nothing emitted (${result.diagnostics.map((d) => d.messageText).join('; ')})`);
    return { code };
  },
};
