import { JoinColumn, ManyToOne } from 'typeorm';
import type { OnDeleteType } from 'typeorm/metadata/types/OnDeleteType';

/**
 * Declares the foreign key `<column> REFERENCES <entity>(id) ON DELETE <onDelete>` that a migration
 * creates, so that entities and migrations agree (`migration:generate` proposes nothing). Put it on a
 * never-loaded property beside the column (`@References('PatientEntity', 'patient_id', 'CASCADE') readonly
 * patientFk?: never;`). The entity is named, not imported, so no module depends on another for it.
 */
export function References(entity: string, column: string, onDelete: OnDeleteType = 'NO ACTION'): PropertyDecorator {
  return (target, property) => {
    ManyToOne(entity, { onDelete })(target, property);
    JoinColumn({ name: column })(target, property);
  };
}
