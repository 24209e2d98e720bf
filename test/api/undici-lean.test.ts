/**
 * src/api/undici-lean.ts loads undici's Agent and request from their own files (not undici's
 * main entry, which loads everything). These tests fail when an undici upgrade moves them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as undici from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, request } from "../../src/api/undici-lean.js";

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (s: string) => (body += s));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ method: req.method, url: req.url, body, key: req.headers["x-key"] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("undici, loaded part by part", () => {
  it("the Agent is undici's own class", () => {
    expect(Agent).toBe(undici.Agent);
  });

  it("request sends method, path with query, headers and body through the given dispatcher", async () => {
    const agent = new Agent();
    try {
      const res = await request(agent, `${origin}/api/v3/designs/abc/versions?skip=2`, { method: "POST", headers: { "x-key": "k1" }, body: "hello" });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ method: "POST", url: "/api/v3/designs/abc/versions?skip=2", body: "hello", key: "k1" });
    } finally {
      await agent.close();
    }
  });

  it("request works with a dispatcher made from undici's main entry too", async () => {
    const agent = new undici.Agent();
    try {
      const res = await request(agent, `${origin}/v3/health`, { method: "GET" });
      expect(await res.body.json()).toMatchObject({ method: "GET", url: "/v3/health" });
    } finally {
      await agent.close();
    }
  });
});
