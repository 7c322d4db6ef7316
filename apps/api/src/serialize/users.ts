import type { User } from "@shortener/core";

export function toUserJson(user: User) {
  return { id: user.id, name: user.name, email: user.email, role: user.role, created_at: user.createdAt.toISOString() };
}
