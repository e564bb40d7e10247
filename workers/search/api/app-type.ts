/** The app's type, shared by the route modules that mount themselves on it. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ServicesEnv } from "../middleware/services.js";

export type ApiApp = OpenAPIHono<ServicesEnv>;
