/** The branch `mpsync history export` writes when none is named (its own module: the CLI's help states it without loading the export). */
export const DEFAULT_HISTORY_BRANCH = "design-history";
