/**
 * How a patient search asks its trigram index (IDX_PATIENTS_SEARCH, migration 1764130000000). The index holds
 * `search_text` without the characters that join words, so that its trigrams also span the joins: a word's own
 * trigrams ("gus", "whi") are shared by thousands of patients and their posting lists grow with the practice,
 * while a trigram across a join ("gus white": "usw", "swh") is rare. docs/decisions/0001-indexes-for-lists-at-scale.md.
 */

/** The characters left out of the index's text. */
export const SEARCH_JOINERS = " .@+-_'";

/** The indexed expression, as the statement must spell it for PostgreSQL to use the index. */
export const SEARCH_INDEX_TEXT = `translate(search_text, '${SEARCH_JOINERS.replace(/'/g, "''")}', '')`;

/** Characters a window takes on each side of a join. */
const SIDE = 3;

/**
 * The parts of a lowercase term the index is asked for; every row found is then checked against the whole
 * term. Wherever the term is a substring of `search_text`, each part is one of the index's text, so nothing
 * is missed. A term with joins is asked for by the characters around its first and last inner join, and by its
 * last four characters when they are digits (the number in an email or a phone: far rarer than its words);
 * a term without one, by itself.
 */
export function searchWindows(term: string): string[] {
  const kept: string[] = [];
  const joins: number[] = [];
  for (const c of term) {
    if (!SEARCH_JOINERS.includes(c)) kept.push(c);
    else if (kept.length && joins.at(-1) !== kept.length) joins.push(kept.length);
  }
  const inner = joins.filter((at) => at < kept.length);
  if (!inner.length || kept.length < 3) return [kept.join('')];
  const first = inner[0];
  const last = inner[inner.length - 1];
  const windows = [...new Set([first, last])].map((at) => kept.slice(Math.max(0, at - SIDE), at + SIDE).join(''));
  const tail = kept.slice(-4).join('');
  if (/^\d{4}$/.test(tail) && kept.length - last > SIDE + 1) windows.push(tail);
  return windows;
}

/** Runs of joining characters, kept by `split` (the capture group). */
const JOINER_RUNS = new RegExp(`([${SEARCH_JOINERS.replace(/[-\\\]^]/g, '\\$&')}]+)`);

/**
 * Whether a term walks its join key (patient_search_keys, migration 1764140000000) before the index is
 * asked: when every join inside it is a space between parts of three characters or more, none of them digits
 * next to the join ("gus white", "mary ann smith"). Such a term matches about as many patients as its key
 * does, so the walk fills its page within a few entries of the page's size. A term with another join
 * ("gus white-lee", "gus.white1987") or a short part is far rarer than any key of it, and the index, asked
 * for its windows, finds its few patients sooner. Only a choice of the faster way: either answers the same.
 */
export function walksJoinKey(term: string): boolean {
  const parts = term.split(JOINER_RUNS);
  // parts alternates text and runs of joiners: [text, run, text, …, text]; the ends' runs are not inside.
  const first = parts[0] === '' ? 2 : 0;
  const last = parts.at(-1) === '' ? parts.length - 3 : parts.length - 1;
  if (last - first < 2) return false;
  for (let i = first + 1; i < last; i += 2) {
    const [left, run, right] = [parts[i - 1], parts[i], parts[i + 1]];
    if (!run.includes(' ') || !/^\D{3}$/.test(left.slice(-3)) || !/^\D{3}$/.test(right.slice(0, 3))) return false;
  }
  return true;
}
