import { slugify } from './slug';

describe('slugify', () => {
  it.each([
    ['New patient intake', 'new-patient-intake'],
    ['  Élève — Über Straße!! ', 'eleve-uber-stra-e'],
    ['Form #2 (2026)', 'form-2-2026'],
    ['---', 'fallback'],
    ['日本語', 'fallback'],
    ['a'.repeat(150), 'a'.repeat(100)],
    [`${'a'.repeat(99)} b`, 'a'.repeat(99)],
  ])('%j -> %j', (name, slug) => {
    expect(slugify(name, 'fallback')).toBe(slug);
  });
});
