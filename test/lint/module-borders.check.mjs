// Shows that the module-border rule (eslint/module-borders.mjs, on in eslint.config.mjs) holds: with the
// project's own ESLint configuration, a deliberate deep import into another module fails and the same
// import through that module's index.ts passes. Run by `npm run lint`; exits 1 if the rule is not alive.
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
// A real file of the scheduling module, linted with the text given here instead of its own.
const filePath = 'src/modules/scheduling/slots.ts';

async function borderMessages(code) {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'borders/module-borders' || m.fatal);
}

const deep = await borderMessages(
  "import { PatientEntity } from '../patients/entities/patient.entity';\nexport type Deep = PatientEntity;\n",
);
assert.equal(deep.length, 1, `a deep import into patients must fail the rule: ${JSON.stringify(deep)}`);
assert.match(deep[0].message, /reaches into module 'patients'/);

const reExport = await borderMessages("export { PatientsService } from '../patients/patients.service';\n");
assert.equal(reExport.length, 1, 'a deep re-export must fail the rule too');

const frontDoor = await borderMessages("import type { PatientDto } from '../patients';\nexport type Front = PatientDto;\n");
assert.deepEqual(frontDoor, [], 'an import through the index must pass');

const own = await borderMessages("import { parseRange } from './date-range';\nexport const ownRange = parseRange;\n");
assert.deepEqual(own, [], "a module's own files are its business");

process.stdout.write('module borders: a deep cross-module import fails the lint, the index passes\n');
