/// <reference types="jest" />
/**
 * @types/jest answers the asymmetric matchers (expect.any(String), expect.stringMatching(…), …) as `any`, so an
 * expected object holding one reads to the no-unsafe-* rules as an `any` assigned to a property. These overloads,
 * merged ahead of the originals, answer them as the AsymmetricMatcher they are; what they match is unchanged.
 */
declare namespace jest {
  interface Expect {
    anything(): AsymmetricMatcher;
    any(classType: unknown): AsymmetricMatcher;
    arrayContaining(arr: readonly unknown[]): AsymmetricMatcher;
    objectContaining(obj: object): AsymmetricMatcher;
    stringMatching(str: string | RegExp): AsymmetricMatcher;
    stringContaining(str: string): AsymmetricMatcher;
    closeTo(num: number, numDigits?: number): AsymmetricMatcher;
  }
  interface InverseAsymmetricMatchers {
    arrayContaining(arr: readonly unknown[]): AsymmetricMatcher;
    objectContaining(obj: object): AsymmetricMatcher;
    stringMatching(str: string | RegExp): AsymmetricMatcher;
    stringContaining(str: string): AsymmetricMatcher;
  }
}
