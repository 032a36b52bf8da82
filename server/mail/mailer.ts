// Outgoing email (password resets, invitations, reports and alerts) through an SMTP server with nodemailer, when SMTP_URL
// is set. Without it there is no mailer, and the console shows links to the person who asked instead.
import nodemailer from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML part beside the text one (multipart/alternative): mail clients show the one they can. */
  html?: string;
  /** Extra headers (List-Unsubscribe on reports). */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createMailer(smtpUrl: string | undefined, from: string): Mailer | null {
  if (!smtpUrl) return null;
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message });
    },
    close: () => transport.close(),
  };
}
