import { createSocket } from "node:dgram";
import * as dnsPacket from "dns-packet";

/** How the test server answers: normally, not at all (a resolver that times out), or SERVFAIL to everything. */
export type TestDnsMode = "answer" | "silent" | "servfail";

export type TestDns = {
  /** `127.0.0.1:<port>`: what `DNS_SERVERS` (or `createTxtLookup({ servers })`) takes. */
  server: string;
  port: number;
  /** Publishes the TXT records at `name` (replacing any there): each record one string, or several to be joined. */
  setTxt(name: string, records: Array<string | string[]>): void;
  removeTxt(name: string): void;
  setMode(mode: TestDnsMode): void;
  /** The names asked about so far (lower-case), in order. */
  readonly asked: string[];
  close(): Promise<void>;
};

const NXDOMAIN = 3;
const SERVFAIL = 2;

/**
 * A real, small authoritative DNS server on loopback UDP for tests (dns-packet over node:dgram, ADR
 * 0017): answers TXT questions from what the test published, NXDOMAIN for any other name. Domain
 * verification is tested through it with the service's real resolver code and `DNS_SERVERS`.
 */
export async function startTestDns(): Promise<TestDns> {
  const socket = createSocket("udp4");
  const zone = new Map<string, string[][]>();
  const asked: string[] = [];
  let mode: TestDnsMode = "answer";

  socket.on("message", (message, remote) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const questions = query.questions ?? [];
    for (const q of questions) asked.push(q.name.toLowerCase());
    if (mode === "silent") return;
    const answers: dnsPacket.Answer[] = [];
    let rcode = 0;
    if (mode === "servfail") rcode = SERVFAIL;
    else {
      for (const q of questions) {
        const records = zone.get(q.name.toLowerCase().replace(/\.$/, ""));
        if (!records) rcode = NXDOMAIN;
        else if (q.type === "TXT") for (const data of records) answers.push({ type: "TXT", name: q.name, ttl: 0, class: "IN", data });
      }
    }
    const response = dnsPacket.encode({
      type: "response",
      id: query.id ?? 0,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | dnsPacket.RECURSION_DESIRED | rcode,
      questions,
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });

  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(0, "127.0.0.1", () => {
      socket.off("error", reject);
      resolve();
    });
  });
  const { port } = socket.address();
  return {
    server: `127.0.0.1:${port}`,
    port,
    setTxt(name, records) {
      zone.set(
        name.toLowerCase().replace(/\.$/, ""),
        records.map((r) => (Array.isArray(r) ? r : [r])),
      );
    },
    removeTxt(name) {
      zone.delete(name.toLowerCase().replace(/\.$/, ""));
    },
    setMode(next) {
      mode = next;
    },
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
