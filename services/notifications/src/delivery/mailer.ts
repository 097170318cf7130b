/** E-mails over SMTP (nodemailer, SMTP_URL such as smtp://127.0.0.1:2525 or smtps://user:pass@host). */
import nodemailer from "nodemailer";
import type { AttemptResult } from "./webhook.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  language: string;
  /** The event id, for the Message-ID (a retried mail keeps it). */
  messageId: string;
}

export function smtpMailer(opts: { url: string; from: string; timeoutMs: number }) {
  const transport = nodemailer.createTransport(opts.url, {
    from: opts.from,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  } as never);
  return {
    async send(m: Mail): Promise<AttemptResult> {
      try {
        await transport.sendMail({
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          messageId: `<${m.messageId}.${Buffer.from(m.to).toString("hex").slice(0, 32)}@notifications.fop>`,
          headers: { "Content-Language": m.language },
        });
        return {};
      } catch (err) {
        return { error: (err as Error).message };
      }
    },
    close: () => transport.close(),
  };
}
