// Shows that the module-border rule (eslint/module-borders.mjs, on in eslint.config.mjs) holds: with the
// project's own ESLint configuration, a deliberate deep import into another module fails and the same
// import through that module's index.ts passes. Run by `npm run lint`; exits 1 if the rule is not alive.
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });
// A real file of the scheduling module, linted with the text given here instead of its own.
const filePath = 'src/modules/scheduling/availability/slots.ts';

async function borderMessages(code) {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'borders/module-borders' || m.fatal);
}

const deep = await borderMessages(
  "import { PatientEntity } from '../../patients/entities/patient.entity';\nexport type Deep = PatientEntity;\n",
);
assert.equal(deep.length, 1, `a deep import into patients must fail the rule: ${JSON.stringify(deep)}`);
assert.match(deep[0].message, /reaches into module 'patients'/);

const reExport = await borderMessages("export { PatientsService } from '../../patients/patients.service';\n");
assert.equal(reExport.length, 1, 'a deep re-export must fail the rule too');

const frontDoor = await borderMessages("import type { PatientDto } from '../../patients';\nexport type Front = PatientDto;\n");
assert.deepEqual(frontDoor, [], 'an import through the index must pass');

const renamed = await borderMessages(
  "import { BookingPagesService } from '../../booking-pages/booking-pages.service';\nexport type Renamed = BookingPagesService;\n",
);
assert.equal(renamed.length, 1, `a deep import into booking-pages must fail the rule: ${JSON.stringify(renamed)}`);
assert.match(renamed[0].message, /reaches into module 'booking-pages'/);

const dynamic = await borderMessages("export const later = () => import('../../patients/patients.service');\n");
assert.equal(dynamic.length, 1, 'a deep dynamic import must fail the rule too');

const own = await borderMessages("import { parseRange } from './date-range';\nexport const ownRange = parseRange;\n");
assert.deepEqual(own, [], "a module's own files are its business");

// Shared mechanisms import no domain module at all, not even through its front door.
const [common] = await eslint.lintText("import { PatientsService } from '../modules/patients';\nexport type Common = PatientsService;\n", {
  filePath: 'src/common/slug.ts',
});
const restricted = common.messages.filter((m) => m.ruleId === 'no-restricted-imports' || m.fatal);
assert.equal(restricted.length, 1, `src/common importing a module must fail the lint: ${JSON.stringify(common.messages)}`);

process.stdout.write('module borders: a deep cross-module import fails the lint, the index passes, src/common imports no module\n');
