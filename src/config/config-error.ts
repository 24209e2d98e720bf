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
