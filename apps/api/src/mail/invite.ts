import { createInvitation, type CreateInvitationInput, type Ctx } from "@shortener/core";
import { createdInvitationJson, invitationUrl } from "../serialize/workspaces.ts";
import type { Mailer } from "./mailer.ts";

/**
 * Creates an invitation (core, one transaction) and, when it has an email and SMTP_URL is set, mails
 * its link after the commit. The answer is the same for REST and tRPC: the invitation, its token and
 * link this once, and `mailed` — false without an email, without SMTP_URL, or when the server refused
 * it (logged): the invitation stays either way, and its link can be handed over by other means.
 */
export async function inviteAndMail(ctx: Ctx, workspaceId: number, input: CreateInvitationInput, mailer: Mailer, publicUrl: string) {
  const { invitation, token, workspaceName, inviter } = await createInvitation({ ctx, workspaceId, input });
  const url = invitationUrl(publicUrl, token);
  const mailed = invitation.email
    ? await mailer.sendInvitation({
        to: invitation.email,
        link: url,
        workspaceName,
        role: invitation.role,
        inviterName: inviter.name,
        inviterEmail: inviter.email,
        expiresAt: invitation.expiresAt,
      })
    : false;
  return createdInvitationJson(invitation, ctx.now(), token, url, mailed);
}
