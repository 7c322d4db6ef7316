import type { FastifyBaseLogger } from "fastify";
import { createTransport, type Transporter } from "nodemailer";

/** What an invitation mail says: where, which role, from whom, and the link (CONTRACT §24). */
export type InvitationMail = { to: string; link: string; workspaceName: string; role: string; inviterName: string; inviterEmail: string; expiresAt: Date };

/** Sends mails; `sendInvitation` answers whether the mail was handed to the SMTP server. */
export type Mailer = { sendInvitation(mail: InvitationMail): Promise<boolean>; close(): void };

/** How long one mail may take (connect, greet, send) before it counts as not sent. */
const MAIL_TIMEOUT_MS = 10_000;

/** A line of a header or of the text, with control characters (a forged header, a hidden line) turned into spaces. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, " ");

/** The plain-text mail of an invitation: no HTML, so nothing the inviter typed can turn into markup. */
export function invitationText(mail: InvitationMail): string {
  return [
    `${oneLine(mail.inviterName)} (${oneLine(mail.inviterEmail)}) invites you to the workspace "${oneLine(mail.workspaceName)}" as ${mail.role}.`,
    "",
    "Accept the invitation here:",
    mail.link,
    "",
    `The link works once, until ${mail.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC. If you did not expect it, ignore this mail.`,
    "",
  ].join("\n");
}

/**
 * The mailer of SMTP_URL (`smtp://user:pass@host:port`, `smtps://…` for TLS from the first byte;
 * nodemailer, docs/adr/0044-workspaces.md), or one that sends nothing when it is unset. A failure is
 * logged without the address or the link and answered `false`: the invitation stays, its link shown.
 */
export function createMailer(config: { smtpUrl: string | undefined; mailFrom: string | undefined; publicUrl: string }, log: FastifyBaseLogger): Mailer {
  const { smtpUrl } = config;
  if (!smtpUrl) return { sendInvitation: async () => false, close: () => {} };
  const from = config.mailFrom ?? `no-reply@${new URL(config.publicUrl).hostname}`;
  let transport: Transporter | undefined;
  return {
    async sendInvitation(mail) {
      try {
        // nodemailer's own timeouts are minutes long; an invitation's answer should not wait that long.
        transport ??= createTransport({ url: smtpUrl, connectionTimeout: MAIL_TIMEOUT_MS, greetingTimeout: MAIL_TIMEOUT_MS, socketTimeout: MAIL_TIMEOUT_MS }, { from });
        await transport.sendMail({
          from,
          to: mail.to,
          subject: oneLine(`${mail.inviterName} invites you to ${mail.workspaceName}`).slice(0, 200),
          text: invitationText(mail),
        });
        return true;
      } catch (error) {
        const { code, responseCode, command } = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown };
        log.warn({ mail: "invitation", code, responseCode, command }, "invitation not mailed; its link is in the API answer");
        return false;
      }
    },
    close() {
      transport?.close();
    },
  };
}
