// Passwords: argon2id through Bun.password, with a length policy checked before anything is stored.
import { validationError } from "../errors";

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

export function checkPasswordPolicy(field: string, password: string, email?: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw validationError(field, `must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (password.length > PASSWORD_MAX_LENGTH) throw validationError(field, `must be at most ${PASSWORD_MAX_LENGTH} characters`);
  if (email && password.trim().toLowerCase() === email.toLowerCase()) throw validationError(field, "must not be your email address");
}

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

// Verified when the email is unknown, so that an unknown email takes as long to refuse as a wrong password.
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    decoy ??= hashPassword(crypto.randomUUID());
    await Bun.password.verify(password, await decoy);
    return false;
  }
  return Bun.password.verify(password, hash);
}
