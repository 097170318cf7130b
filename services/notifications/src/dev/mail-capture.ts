/**
 * A local SMTP server that keeps every mail it receives in memory (smtp-server + mailparser): what
 * `npm start` points SMTP_URL at, so a newcomer sees the notification e-mails (listed over HTTP by
 * the launcher), and what the system tests check recipients, subjects and languages against.
 * Development and tests only: no authentication, no TLS, loopback.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  language: string | undefined;
  messageId: string | undefined;
  received: string;
}

export interface MailCapture {
  /** smtp://127.0.0.1:<port> */
  url: string;
  mails: CapturedMail[];
  close(): Promise<void>;
}

const addresses = (a: ParsedMail["to"]): string[] =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((x) => x.value.map((v) => v.address ?? ""));

export async function startMailCapture(
  opts: { port?: number; host?: string; max?: number } = {},
): Promise<MailCapture> {
  const mails: CapturedMail[] = [];
  const max = opts.max ?? 1000;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((m) => {
          mails.push({
            from: m.from?.value[0]?.address ?? "",
            to: addresses(m.to),
            subject: m.subject ?? "",
            text: m.text ?? "",
            html: typeof m.html === "string" ? m.html : "",
            language: m.headers.get("content-language")?.toString(),
            messageId: m.messageId,
            received: new Date().toISOString(),
          });
          if (mails.length > max) mails.shift();
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${host}:${port}`,
    mails,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
