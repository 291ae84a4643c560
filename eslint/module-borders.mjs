// An ESLint rule: a file of src/modules/<m>/ imports another module only through that module's front
// door, src/modules/<other>/index.ts (its services, DTOs and Nest module). Relative imports are resolved
// against the importing file, so the rule holds whatever the depth of either side.
import { dirname, relative, resolve, sep } from 'node:path';

const MODULES = resolve(import.meta.dirname, '..', 'src', 'modules');

/** The module a path lies in, and the rest of the path inside it; undefined outside src/modules. */
function placeOf(path) {
  const rel = relative(MODULES, path);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep) || /^[a-zA-Z]:/.test(rel)) return undefined;
  const [module, ...rest] = rel.split(sep);
  return { module, rest: rest.join('/') };
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: "Import another module only through its index.ts" },
    messages: {
      deep: "'{{source}}' reaches into module '{{module}}'; import its public surface from src/modules/{{module}} (index.ts) instead.",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = placeOf(file);
    if (!from) return {};
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = placeOf(resolve(dirname(file), source));
      if (!to || to.module === from.module) return;
      if (to.rest === '' || to.rest === 'index' || to.rest === 'index.ts') return;
      context.report({ node: node.source, messageId: 'deep', data: { source, module: to.module } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { meta: { name: 'module-borders' }, rules: { 'module-borders': rule } };
