// A real SMTP server on loopback (the smtp-server package) that keeps every message it receives,
// parsed with mailparser, so tests can follow the links our emails carry.
import { SMTPServer } from "smtp-server";
import { simpleParser, type ParsedMail } from "mailparser";
import type { AddressInfo } from "node:net";

export interface SmtpSink {
  url: string;
  messages: ParsedMail[];
  /** Resolves with the next message to arrive (or one already received and not yet taken). */
  next(): Promise<ParsedMail>;
  stop(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  let taken = 0;
  const waiting: ((m: ParsedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          const w = waiting.shift();
          if (w) {
            taken++;
            w(mail);
          }
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    next: () => (taken < messages.length ? Promise.resolve(messages[taken++]) : new Promise((resolve) => waiting.push(resolve))),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The first console link in a message's text. */
export const linkIn = (mail: ParsedMail) => mail.text?.match(/https?:\/\/\S+\/console\/\S+/)?.[0] ?? "";
