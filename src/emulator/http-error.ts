/** The one error the emulator's core throws: an HTTP status and the `{ error }` message. */

/** A failure the emulator answers with `status` and `{ "error": message }`. */
export class EmulatorHttpError extends Error {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "EmulatorHttpError";
    this.status = status;
    this.headers = headers;
  }
}

/** 400 */
export function badRequest(message: string): EmulatorHttpError {
  return new EmulatorHttpError(400, message);
}

/** 404 */
export function notFound(message: string): EmulatorHttpError {
  return new EmulatorHttpError(404, message);
}
