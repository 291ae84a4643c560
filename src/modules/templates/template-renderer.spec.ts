import { ValidationFailedException } from '../../common/http/errors/problem';
import { buildTemplateContext } from './template-context';
import {
  assertTemplatesCompile,
  compileTemplate,
  MAX_RENDERED_LENGTH,
  MAX_TEMPLATE_LENGTH,
  renderTemplate,
  TemplateRenderError,
  TemplateSyntaxError,
} from '../../common/templates/template-renderer';

const patient = {
  firstName: 'Ada <script>',
  lastName: 'Lovelace & Co',
  email: 'ada@example.com',
  phone: '+442079460000',
  joiningCode: 'K7MX4RQ2',
};

function fieldErrors(fn: () => void): { field: string; message: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailedException);
    return (err as ValidationFailedException).extensions.errors ?? [];
  }
  throw new Error('expected a ValidationFailedException');
}

describe('renderTemplate', () => {
  const context = buildTemplateContext({ patient, practice: { name: 'Acme "Clinic"' }, variables: { time: '09:30' } });

  it('escapes values in HTML parts', () => {
    expect(renderTemplate('<p>Hi {{patient.firstName}} of {{practice.name}}</p>', 'html', context)).toBe(
      '<p>Hi Ada &lt;script&gt; of Acme &quot;Clinic&quot;</p>',
    );
  });

  it('prints values as they are in text parts', () => {
    expect(renderTemplate('Hi {{patient.firstName}}, {{patient.lastName}} at {{time}}', 'text', context)).toBe(
      'Hi Ada <script>, Lovelace & Co at 09:30',
    );
  });

  it('renders the built-in block helpers and missing values as empty', () => {
    const source =
      '{{#if patient.email}}E{{/if}}{{#unless nothing}}U{{/unless}}{{#each list}}[{{this}}]{{/each}}{{#with patient}}{{lastName}}{{/with}}{{missing.deep.path}}';
    const ctx = buildTemplateContext({ patient, variables: { list: [1, 2] } });
    expect(renderTemplate(source, 'text', ctx)).toBe('EU[1][2]Lovelace & Co');
  });

  it('exposes only the safe patient fields', () => {
    const ctx = buildTemplateContext({ patient: { ...patient, dateOfBirth: '1985-12-10', address: '1 Road' } as typeof patient });
    expect(renderTemplate('{{patient.fullName}}|{{patient.joiningCode}}|{{patient.dateOfBirth}}|{{patient.address}}', 'text', ctx)).toBe(
      'Ada <script> Lovelace & Co|K7MX4RQ2||',
    );
  });

  it('lets a known patient and the practice settings win over caller variables', () => {
    const variables = { patient: { firstName: 'Eve' }, practice: { name: 'Fake' } };
    expect(
      renderTemplate(
        '{{patient.firstName}}/{{practice.name}}',
        'text',
        buildTemplateContext({ patient, practice: { name: 'Acme' }, variables }),
      ),
    ).toBe('Ada <script>/Acme');
    // Without a patient (a preview, a send to a bare address) the caller's sample fills in.
    expect(renderTemplate('{{patient.firstName}}/{{practice.name}}', 'text', buildTemplateContext({ variables }))).toBe('Eve/');
  });

  it('reads no prototype properties', () => {
    // Caller variables may be anything JSON allows; a template cannot climb out of them.
    const ctx = buildTemplateContext({ variables: { obj: { a: 1 }, keys: ['a', 'constructor', 'toString', '__proto__'] } });
    expect(renderTemplate('{{#each keys}}[{{lookup ../obj this}}]{{/each}}', 'text', ctx)).toBe('[1][][][]');
  });

  it('refuses output over the bound', () => {
    const ctx = buildTemplateContext({ variables: { big: 'x'.repeat(MAX_RENDERED_LENGTH / 2 + 1) } });
    expect(() => renderTemplate('{{big}}{{big}}', 'text', ctx)).toThrow(TemplateRenderError);
  });
});

describe('compileTemplate', () => {
  it.each([
    ['an unclosed block', '{{#if patient.email}}hello', /Parse error on line 1/],
    ['an unclosed mustache', 'Hi {{patient.firstName', /Parse error/],
    ['a mismatched block', '{{#if a}}x{{/each}}', /doesn't match/],
    ['an unknown helper', '{{shout patient.firstName}}', /unknown helper shout/],
    ['the log helper', '{{log patient}}', /unknown helper log/],
    ['#if without its argument', '{{#if}}x{{/if}}', /#if requires exactly one argument/],
    ['a partial', '{{> footer}}', /partials are not supported/],
    ['a decorator', '{{* inline}}', /decorators are not supported/],
    ['a constructor path', '{{patient.constructor.name}}', /'constructor' may not be used/],
    ['a __proto__ path', '{{__proto__}}', /'__proto__' may not be used/],
    ['a toString path', '{{patient.firstName.toString}}', /'toString' may not be used/],
    ['a constructor lookup', '{{lookup patient "constructor"}}', /'constructor' may not be looked up/],
  ])('refuses %s', (_, source, message) => {
    expect(() => compileTemplate(source, 'text')).toThrow(TemplateSyntaxError);
    expect(() => compileTemplate(source, 'text')).toThrow(message);
  });

  it('gives one-line messages', () => {
    try {
      compileTemplate('line one\n{{#if a}}', 'text');
      throw new Error('compiled');
    } catch (err) {
      expect((err as Error).message).toMatch(/^Parse error on line 2: Expecting .*got 'EOF'$/);
    }
  });

  it('refuses unescaped output in HTML but not in text', () => {
    expect(() => compileTemplate('<p>{{{patient.firstName}}}</p>', 'html')).toThrow(/unescaped output/);
    expect(() => compileTemplate('<p>{{& patient.firstName}}</p>', 'html')).toThrow(/unescaped output/);
    expect(renderTemplate('{{{x}}}', 'text', { x: '<b>' })).toBe('<b>');
  });

  it('refuses templates over the size bound', () => {
    expect(() => compileTemplate('x'.repeat(MAX_TEMPLATE_LENGTH + 1), 'text')).toThrow(/at most 100000 characters/);
    expect(compileTemplate('x'.repeat(MAX_TEMPLATE_LENGTH), 'text')({})).toHaveLength(MAX_TEMPLATE_LENGTH);
  });
});

describe('assertTemplatesCompile', () => {
  it('names every field that does not compile and skips absent ones', () => {
    const errors = fieldErrors(() =>
      assertTemplatesCompile({
        subject: ['text', 'Hi {{'],
        htmlContent: ['html', '{{{raw}}}'],
        textContent: ['text', undefined],
        body: ['text', null],
      }),
    );
    expect(errors.map((e) => e.field)).toEqual(['subject', 'htmlContent']);
    expect(errors[0].message).toMatch(/^does not compile: Parse error/);
  });

  it('passes templates that compile', () => {
    expect(() =>
      assertTemplatesCompile({ subject: ['text', 'Hi {{patient.firstName}}'], htmlContent: ['html', '<b>{{x}}</b>'] }),
    ).not.toThrow();
  });
});
