import { ValidationFailedException } from '../../common/http/problem';
import type { TemplateContext } from '../../common/templates/template-context';
import { renderTemplate, TemplateRenderError } from '../../common/templates/template-renderer';
import { SMS_BODY_MAX_LENGTH } from './dto/sms-template.dto';
import { SmsSegments, smsSegments } from './sms-segments';

export interface RenderedSms extends SmsSegments {
  body: string;
}

/**
 * Renders an SMS body (text: values printed as they are) with its encoding and segments. A render that
 * fails, or a text longer than a provider takes in one request, is 400 naming `field` (the variables).
 */
export function renderSms(source: string, context: TemplateContext, field: string): RenderedSms {
  let body: string;
  try {
    body = renderTemplate(source, 'text', context);
  } catch (err) {
    if (err instanceof TemplateRenderError) throw new ValidationFailedException([{ field, message: `cannot be rendered: ${err.message}` }]);
    throw err;
  }
  return { body, ...smsSegments(body) };
}

/** As renderSms, and the text must be one a provider takes: not empty, at most SMS_BODY_MAX_LENGTH characters. */
export function renderSendableSms(source: string, context: TemplateContext, field: string): RenderedSms {
  const rendered = renderSms(source, context, field);
  if (!rendered.body.trim()) throw new ValidationFailedException([{ field, message: 'renders an empty text' }]);
  if (rendered.body.length > SMS_BODY_MAX_LENGTH) {
    throw new ValidationFailedException([{ field, message: `renders a text longer than ${SMS_BODY_MAX_LENGTH} characters` }]);
  }
  return rendered;
}
