import type { OpenAPIObject } from '@nestjs/swagger';
import { dateFromNow, EXAMPLE_FROM_NOW, exampleDate, servedWithExamplesFromNow, withExamplesFromNow } from './example-dates';

/** The parts of the filled document the test reads. */
interface Filled {
  paths: { '/a': { get: { parameters: { example?: string }[] } } };
  components: { schemas: { A: { properties: { at: unknown } } } };
}

describe('example dates computed when the document is served', () => {
  it.each([
    ['2030-01-06T23:59:59.000Z', '2030-01-07'], // a Sunday: the next day
    ['2030-01-07T00:00:00.000Z', '2030-01-14'], // a Monday: a week ahead, never today
    ['2030-01-09T12:00:00.000Z', '2030-01-14'],
    ['2030-12-30T08:00:00.000Z', '2031-01-06'], // across a year
  ])('at %s the next Monday is %s', (now, monday) => {
    expect(exampleDate({ daysAfterNextMonday: 0 }, new Date(now))).toBe(monday);
  });

  it('adds days and a UTC time', () => {
    const now = new Date('2030-01-09T12:00:00.000Z');
    expect(exampleDate({ daysAfterNextMonday: 4 }, now)).toBe('2030-01-18');
    expect(exampleDate({ daysAfterNextMonday: 7, time: '15:00' }, now)).toBe('2030-01-21T15:00:00.000Z');
  });

  it('fills every rule of a document, wherever it stands, and leaves the original unchanged', () => {
    const rule = { [EXAMPLE_FROM_NOW]: { daysAfterNextMonday: 0, time: '15:00' } };
    const document = {
      paths: { '/a': { get: { parameters: [{ name: 'startDate', ...rule }] } } },
      components: { schemas: { A: { properties: { at: rule } } } },
    };
    const filled = withExamplesFromNow(document as unknown as OpenAPIObject, new Date('2030-01-09T12:00:00.000Z')) as unknown as Filled;
    expect(filled.paths['/a'].get.parameters[0].example).toBe('2030-01-14T15:00:00.000Z');
    expect(filled.components.schemas.A.properties.at).toEqual({ ...rule, example: '2030-01-14T15:00:00.000Z' });
    expect(JSON.stringify(document)).not.toContain('example"');
  });

  it("puts the date itself where a rule stands alone, as a member of a body's own example", () => {
    const document = { paths: { '/b': { post: { value: { notes: 'x', datetime: dateFromNow(1, '15:00') } } } } };
    const filled = withExamplesFromNow(document as unknown as OpenAPIObject, new Date('2030-01-09T12:00:00.000Z'));
    expect(filled.paths['/b']).toEqual({ post: { value: { notes: 'x', datetime: '2030-01-15T15:00:00.000Z' } } });
  });

  it('rebuilds the served document only when its dates change', () => {
    let now = new Date('2030-01-08T00:00:00.000Z');
    const served = servedWithExamplesFromNow({ info: {} } as OpenAPIObject, () => now);
    const first = served();
    now = new Date('2030-01-13T23:00:00.000Z');
    expect(served()).toBe(first);
    now = new Date('2030-01-14T00:00:00.000Z');
    expect(served()).not.toBe(first);
  });
});
