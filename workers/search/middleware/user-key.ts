/**
 * The user key that assigns experiment arms: the `X-User-Id` header (or the
 * older `x-cogr-user`), bounded in length, else the `cogr_uid` cookie, set
 * on the first visit (HttpOnly, SameSite=Lax, Secure under HTTPS). The
 * request guard has already refused over-long header values.
 */
import { getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { SERVING_LIMITS } from "../limits.js";

export const USER_COOKIE = "cogr_uid";
const COOKIE_VALUE = /^[A-Za-z0-9_-]{8,64}$/;

export type UserKeyEnv = { Variables: { userKey: string } };

export function headerUserKey(header: (name: string) => string | undefined): string | undefined {
  return header("x-user-id") ?? header("x-cogr-user");
}

export const userKey = createMiddleware<UserKeyEnv>(async (c, next) => {
  const fromHeader = headerUserKey((n) => c.req.header(n));
  if (fromHeader) {
    c.set("userKey", `h:${fromHeader}`);
  } else {
    const cookie = getCookie(c, USER_COOKIE);
    if (cookie && COOKIE_VALUE.test(cookie)) {
      c.set("userKey", `c:${cookie}`);
    } else {
      const id = crypto.randomUUID().replaceAll("-", "");
      setCookie(c, USER_COOKIE, id, {
        httpOnly: true,
        sameSite: "Lax",
        secure: new URL(c.req.url).protocol === "https:",
        path: "/",
        maxAge: SERVING_LIMITS.userCookieMaxAgeS,
      });
      c.set("userKey", `c:${id}`);
    }
  }
  await next();
});
