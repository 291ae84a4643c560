/*
 * The Handlebars renderer shared by email and SMS templates. How to use it:
 *
 *   // at create/update time: a 400 validation_failed naming every field that does not compile
 *   assertTemplatesCompile({ subject: ['text', dto.subject], htmlContent: ['html', dto.htmlContent] });
 *
 *   // at send/preview time (context from TemplateContextService in modules/templates)
 *   const html = renderTemplate(row.htmlContent, 'html', context); // {{x}} HTML-escaped
 *   const text = renderTemplate(row.body, 'text', context);        // no escaping: text parts and SMS
 *
 * Templates are Handlebars with the built-in block helpers only (if, unless, each, with, lookup): no
 * partials, decorators or custom helpers, so a template that compiled at create time renders later.
 * In HTML parts `{{{x}}}` and `{{&x}}` are refused: values come from patients (who can set their own
 * name on the public booking page), so an HTML part escapes every value it prints. Paths through
 * `constructor`, `__proto__`, `toString` and the other Object.prototype names are refused at compile
 * time, on top of Handlebars's own prototype-access block at render time (dynamic `lookup`s).
 */
import { createHash } from 'node:crypto';
import Handlebars from 'handlebars';
import { FieldError, ValidationFailedException } from '../http/errors/problem';

/** `html`: values are HTML-escaped; `text`: printed as they are (plain-text email parts, SMS). */
export type TemplateKind = 'html' | 'text';

/** The largest template source accepted (a long HTML email fits; a megabyte of markup does not). */
export const MAX_TEMPLATE_LENGTH = 100_000;
/** The largest rendered output; `{{#each}}` over caller variables could otherwise multiply the size. */
export const MAX_RENDERED_LENGTH = 1_000_000;

/** A template that does not compile; `message` is one line, fit for errors[]. */
export class TemplateSyntaxError extends Error {}

/** A compiled template that failed while rendering (output too large, a value Handlebars refused). */
export class TemplateRenderError extends Error {}

// An environment of our own: nothing registered on the global Handlebars instance by a dependency
// reaches it. `log` writes to the console, so it goes.
const env = Handlebars.create();
env.unregisterHelper('log');
const KNOWN_HELPERS = { log: false } as KnownHelpers;

// Object.prototype's members (constructor, __proto__, toString, …) and `prototype`: refused in paths.
const FORBIDDEN_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
// Handlebars blocks inherited properties anyway; saying so explicitly also stops it logging each one.
const RUNTIME_OPTIONS: RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

type Render = (context: unknown) => string;
const cache = new Map<string, Render>();
const CACHE_SIZE = 500;

/** Compiles `source` (cached by source and kind); throws TemplateSyntaxError when it does not compile. */
export function compileTemplate(source: string, kind: TemplateKind): Render {
  const key = `${kind}:${createHash('sha256').update(source).digest('base64')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (source.length > MAX_TEMPLATE_LENGTH) throw new TemplateSyntaxError(`must be at most ${MAX_TEMPLATE_LENGTH} characters`);
  let compiled: HandlebarsTemplateDelegate;
  try {
    checkAst(env.parse(source), kind);
    compiled = env.compile(source, { knownHelpersOnly: true, knownHelpers: KNOWN_HELPERS, noEscape: kind === 'text', strict: false });
    // Compilation is lazy and some mistakes (`{{#if}}` without its argument) only show when run:
    // one render with an empty context finds them now rather than at send time.
    compiled({}, RUNTIME_OPTIONS);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw err;
    throw new TemplateSyntaxError(oneLine(err));
  }
  const render: Render = (context) => compiled(context, RUNTIME_OPTIONS);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(key, render);
  return render;
}

/**
 * Checks each field's template; throws one 400 validation_failed naming every field that does not
 * compile ("does not compile: …"). Absent (undefined or null) sources are skipped.
 */
export function assertTemplatesCompile(fields: Record<string, [TemplateKind, string | null | undefined]>): void {
  const errors: FieldError[] = [];
  for (const [field, [kind, source]] of Object.entries(fields)) {
    if (source === undefined || source === null) continue;
    try {
      compileTemplate(source, kind);
    } catch (err) {
      errors.push({ field, message: `does not compile: ${(err as Error).message}` });
    }
  }
  if (errors.length) throw new ValidationFailedException(errors);
}

/** Renders `source` with `context`; TemplateSyntaxError / TemplateRenderError when it cannot. */
export function renderTemplate(source: string, kind: TemplateKind, context: object): string {
  const render = compileTemplate(source, kind);
  let output: string;
  try {
    output = render(context);
  } catch (err) {
    throw new TemplateRenderError(oneLine(err));
  }
  if (output.length > MAX_RENDERED_LENGTH) throw new TemplateRenderError(`renders to more than ${MAX_RENDERED_LENGTH} characters`);
  return output;
}

type Node = hbs.AST.Node;

/** Refuses what Handlebars would accept but we do not (see the comment at the top). */
function checkAst(program: hbs.AST.Program, kind: TemplateKind): void {
  const visit = (node: Node | undefined | null): void => {
    if (!node || typeof node !== 'object') return;
    const where = `line ${node.loc?.start.line ?? 1}`;
    switch (node.type) {
      case 'PartialStatement':
      case 'PartialBlockStatement':
        throw new TemplateSyntaxError(`partials are not supported (${where})`);
      case 'Decorator':
      case 'DecoratorBlock':
        throw new TemplateSyntaxError(`decorators are not supported (${where})`);
      case 'MustacheStatement':
        if (kind === 'html' && !(node as hbs.AST.MustacheStatement).escaped) {
          throw new TemplateSyntaxError(`unescaped output ({{{…}}} or {{&…}}) is not allowed in HTML (${where})`);
        }
        break;
      case 'PathExpression':
        for (const part of (node as hbs.AST.PathExpression).parts) {
          if (FORBIDDEN_NAMES.has(part)) throw new TemplateSyntaxError(`'${part}' may not be used in a path (${where})`);
        }
        break;
      case 'StringLiteral':
        if (FORBIDDEN_NAMES.has((node as hbs.AST.StringLiteral).value)) {
          throw new TemplateSyntaxError(`'${(node as hbs.AST.StringLiteral).value}' may not be looked up (${where})`);
        }
        break;
    }
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach((child) => visit(child as Node));
      else if (value && typeof value === 'object' && 'type' in value) visit(value as Node);
    }
  };
  visit(program);
}

/** Handlebars's parse errors span several lines (the source line, a caret); keep what says why. */
function oneLine(err: unknown): string {
  const lines = String((err as Error)?.message ?? err)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^-*\^$/.test(line));
  const head = lines[0] ?? 'invalid template';
  const why = lines.length > 1 ? lines[lines.length - 1] : '';
  const text = why && why !== head ? `${head} ${why}` : head;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
