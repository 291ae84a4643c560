import { ValidationFailedException } from '../../common/http/errors/problem';
import { Refusal, refused } from '../../common/messaging';
import type { TemplateContext } from '../templates';
import { assertTemplatesCompile, renderTemplate, TemplateRenderError } from '../../common/templates/template-renderer';

/** A template's parts, or a one-off message's. */
export interface EmailParts {
  subject: string;
  htmlContent: string | null;
  textContent: string | null;
}

/** Checks that each given part compiles; throws one 400 naming every part that does not. */
export function assertEmailPartsCompile(parts: Partial<EmailParts>): void {
  assertTemplatesCompile({
    subject: ['text', parts.subject],
    htmlContent: ['html', parts.htmlContent],
    textContent: ['text', parts.textContent],
  });
}

/**
 * Renders the parts for one recipient: values HTML-escaped in the HTML part, as they are in the subject
 * and the text part. A render that fails (output over the bound) is a 400 naming `variablesField`, the
 * body member whose values made it fail.
 */
export function renderEmailParts(parts: EmailParts, context: TemplateContext, variablesField: string): EmailParts {
  const rendered = emailPartsOrRefusal(parts, context, variablesField);
  if ('status' in rendered) throw new ValidationFailedException([{ field: rendered.field, message: rendered.message }]);
  return rendered;
}

/** As renderEmailParts, answering why the parts cannot be rendered instead of throwing. */
export function emailPartsOrRefusal(parts: EmailParts, context: TemplateContext, variablesField: string): EmailParts | Refusal {
  try {
    return {
      subject: renderTemplate(parts.subject, 'text', context),
      htmlContent: parts.htmlContent === null ? null : renderTemplate(parts.htmlContent, 'html', context),
      textContent: parts.textContent === null ? null : renderTemplate(parts.textContent, 'text', context),
    };
  } catch (err) {
    if (err instanceof TemplateRenderError) return refused('render_failed', variablesField, `cannot be rendered: ${err.message}`);
    throw err;
  }
}
