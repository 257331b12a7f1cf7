// Who may do what: only the inventory's on-call people, only in its channels.
import type { Inventory } from '../inventory/schema.ts';

export type Authz = { ok: true } | { ok: false; reason: string };

export interface AuthzDeps {
  /** Members of a Slack user group (usergroups.users.list); cached by the caller. */
  groupMembers?: (group: string) => Promise<string[]>;
}

export function channelAllowed(inv: Inventory, channel: string): Authz {
  const channels = inv.oncall.channels;
  if (channels.length === 0 || channels.includes(channel)) return { ok: true };
  return { ok: false, reason: `/seat works in ${channels.map((c) => `<#${c}>`).join(', ')} only` };
}

export async function userAllowed(inv: Inventory, user: string, deps: AuthzDeps): Promise<Authz> {
  const { users, userGroup } = inv.oncall;
  if (users.includes(user)) return { ok: true };
  if (userGroup && deps.groupMembers) {
    try {
      if ((await deps.groupMembers(userGroup)).includes(user)) return { ok: true };
    } catch {
      return { ok: false, reason: `could not read the on-call group <!subteam^${userGroup}> from Slack; ask ${who(users)} ` };
    }
  }
  const names = [...users.map((u) => `<@${u}>`), ...(userGroup ? [`<!subteam^${userGroup}>`] : [])];
  return { ok: false, reason: `only the on-call people may use /seat: ${names.join(', ') || 'nobody is configured (oncall.users in the inventory)'}` };
}

function who(users: string[]): string {
  return users.length ? users.map((u) => `<@${u}>`).join(', ') : 'the on-call person';
}
