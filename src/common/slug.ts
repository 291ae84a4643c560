import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Length, Matches } from 'class-validator';
import { ConflictProblem } from './http/errors/problem';

/*
 * URL slugs of the records that have one (forms, schedulers): what a valid one looks like, how one is
 * derived from a name, and the 409 a taken one answers. Each table keeps its own unique index per tenant
 * and mode; the module maps that index's violation to SlugTakenException.
 */

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 100;

/** A slug from a name: ASCII letters and digits joined by `-`; `fallback` when nothing is left. */
export function slugify(name: string, fallback: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // the accents NFKD split off
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  return slug || fallback;
}

/**
 * An optional request member that must be a slug (1–100 lower-case letters and digits separated by single
 * hyphens); documented with its pattern and length.
 */
export function IsSlug(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ pattern: SLUG.source, minLength: 1, maxLength: MAX_SLUG_LENGTH }),
    Length(1, MAX_SLUG_LENGTH),
    Matches(SLUG, { message: 'must be lower-case letters and digits separated by single hyphens' }),
  );
}

/** 409 slug_taken, naming `slug`; `resource` is what holds it ('form', 'scheduler'). */
export class SlugTakenException extends ConflictProblem {
  constructor(resource: string, slug: string) {
    super('slug_taken', 'Slug taken', `Another ${resource} of this tenant and mode has the slug '${slug}'; send a different slug`, {
      errors: [{ field: 'slug', message: `is already used by another ${resource}` }],
    });
  }
}
