import { ConflictProblem, ResourceNotFoundProblem } from '../../../common/http/errors/problem';
import type { SeriesConflictDto } from './dto/series.dto';

export class SeriesNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The series');
  }
}

/** 409: occurrences that cannot be booked or moved under onConflict `reject`; nothing was written. */
export class SeriesConflictsException extends ConflictProblem {
  constructor(readonly conflicts: SeriesConflictDto[]) {
    const n = conflicts.length;
    super(
      'series_conflicts',
      'Series conflicts',
      `${n} occurrence${n === 1 ? '' : 's'} cannot be booked (index ${conflicts.map((c) => c.index).join(', ')}); nothing was written`,
      { conflicts },
    );
  }
}
