export const INVALID_REGEX = 'INVALID_REGEX';

/** An author pattern this engine cannot run; the message says why, in words, and how to rewrite it. */
export class UserRegexError extends Error {
  readonly type = INVALID_REGEX;
  constructor(
    readonly pattern: string,
    reason: string
  ) {
    super(reason);
    this.name = 'UserRegexError';
  }
}
