import { Param, PipeTransform } from '@nestjs/common';
import { ResourceNotFoundProblem } from '../errors/problem';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids; a malformed one names no record the caller can see, so it is a 404, as for any unknown id. */
class ParseIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw new ResourceNotFoundProblem();
    return value.toLowerCase();
  }
}

export const IdParam = (name = 'id'): ParameterDecorator => Param(name, new ParseIdPipe());
