/** The config error: one line per problem, each naming its source (file, variable or flag). */
import { MpsyncError } from "../core/errors.js";

/** An invalid `.syncrc`, environment override or flag; `problems` holds one line each. */
export class ConfigInvalidError extends MpsyncError {
  /** One line per problem, e.g. `.syncrc: designs[0].dir: expected a string, got 42`. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options: { cause?: unknown; hint?: string } = {}) {
    super("CONFIG_INVALID", problems.join("\n"), options);
    this.name = "ConfigInvalidError";
    this.problems = problems;
  }
}

/**
 * No config to read: none found searching upward from the working folder (`searched`), or the
 * one named by --config / MPSYNC_CONFIG is not there. Still CONFIG_INVALID (exit 2, --json);
 * commands that work without a config tell it by its class, never by its words.
 */
export class ConfigMissingError extends ConfigInvalidError {
  /** True when no .syncrc was found searching; false when the named file is absent. */
  readonly searched: boolean;

  constructor(problem: string, searched: boolean) {
    super([problem]);
    this.name = "ConfigMissingError";
    this.searched = searched;
  }
}
