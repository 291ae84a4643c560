import { ValidationFailedException } from '../../common/http/errors/problem';
import { Refusal, refused } from '../../common/messaging';
import type { TemplateContext } from '../templates';
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
  return orThrow(smsOrRefusal(source, context, field, false));
}

/**
 * As renderSms, answering why a text cannot be rendered instead of throwing; with `sendable`, the text must
 * also be one a provider takes: not empty, at most SMS_BODY_MAX_LENGTH characters.
 */
export function smsOrRefusal(source: string, context: TemplateContext, field: string, sendable: boolean): RenderedSms | Refusal {
  let body: string;
  try {
    body = renderTemplate(source, 'text', context);
  } catch (err) {
    if (err instanceof TemplateRenderError) return refused('render_failed', field, `cannot be rendered: ${err.message}`);
    throw err;
  }
  if (sendable && !body.trim()) return refused('render_failed', field, 'renders an empty text');
  if (sendable && body.length > SMS_BODY_MAX_LENGTH) {
    return refused('render_failed', field, `renders a text longer than ${SMS_BODY_MAX_LENGTH} characters`);
  }
  return { body, ...smsSegments(body) };
}

function orThrow<T extends object>(rendered: T | Refusal): T {
  if ('status' in rendered) throw new ValidationFailedException([{ field: rendered.field, message: rendered.message }]);
  return rendered;
}
