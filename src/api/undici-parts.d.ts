// Types of the two undici files src/api/undici-lean.ts imports on their own (undici types only
// its main entry).
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module "undici/lib/core/connect.js" {
  import type { buildConnector } from "undici";
  const build: (options: buildConnector.BuildOptions) => buildConnector.connector;
  export default build;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
