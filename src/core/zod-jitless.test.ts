import * as z from "zod";
import { describe, expect, it } from "vitest";

describe("zod for the CLI", () => {
  it("turns zod's compiled object parsers off, and objects still parse and fail as before", async () => {
    await import("./zod-jitless.js");
    expect(z.config().jitless).toBe(true);
    const schema = z.object({ dir: z.string(), design: z.string() });
    expect(schema.parse({ dir: "a", design: "b", extra: 1 })).toEqual({ dir: "a", design: "b" });
    expect(schema.safeParse({ dir: 1 }).error?.issues.map((i) => i.path.join("."))).toEqual(["dir", "design"]);
  });
});
