import { plainToInstance, Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min, validateSync } from 'class-validator';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The environment as read: variable names and their text. */
export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** Variables whose values an error message never repeats. */
const SECRET_VARIABLES = new Set([
  'QUEUE_DASHBOARD_PASSWORD',
  'APP_SECRET',
  'APP_SECRET_PREVIOUS',
  'TWILIO_AUTH_TOKEN',
  'SMTP_URL',
  'TEST_SMTP_URL',
]);

export const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

export const toBool = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'on', 'yes'].includes(v)) return true;
  if (['0', 'false', 'off', 'no'].includes(v)) return false;
  return value;
};

/** An integer variable from `min` to `max` (written as digits; the checks name the variable when it is not). */
export function IntVar(min: number, max?: number): PropertyDecorator {
  const checks = [Transform(toInt), IsInt({ message: 'must be an integer' }), Min(min), ...(max === undefined ? [] : [Max(max)])];
  return (target, key) => checks.forEach((check) => check(target, key));
}

/** A boolean variable: 1/0, true/false, on/off or yes/no. */
export function BoolVar(message = 'must be true or false'): PropertyDecorator {
  const checks = [Transform(toBool), IsBoolean({ message })];
  return (target, key) => checks.forEach((check) => check(target, key));
}

/**
 * The variables of one concern (a class whose fields are the variables, with their defaults and checks),
 * read from `env` and validated. An empty value counts as unset. A bad value throws a ConfigError whose
 * message names the variable, says what it should be, and repeats the value unless it is a secret.
 */
export function readEnv<T extends object>(variables: new () => T, env: Env): T {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(new variables())) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const vars = plainToInstance(variables, raw);
  const errors = validateSync(vars, { forbidUnknownValues: false });
  if (errors.length === 0) return vars;
  const first = errors[0];
  const constraints = first.constraints ?? {};
  // Say what the value should be (an integer, a URL) before how big it may be.
  const typeCheck = ['isInt', 'isBoolean', 'matches', 'isIn', 'isEmail', 'isString', 'isTrustProxy'].find((c) => constraints[c]);
  const reason = (typeCheck && constraints[typeCheck]) ?? Object.values(constraints)[0] ?? 'is invalid';
  // A secret is never echoed, not even a wrong one: start-up errors end up in logs.
  const got = SECRET_VARIABLES.has(first.property) ? '' : ` (got "${String(raw[first.property])}")`;
  throw new ConfigError(`Invalid configuration: ${first.property} ${reason.replace(`${first.property} `, '')}${got}`);
}

/**
 * The process's environment, with `.env` of the working directory read into it first when there is one
 * (`npm start`, the worker and the CLI alike): a variable already set wins, as Node's loadEnvFile never
 * overrides one. Read into process.env itself, so the pg driver's own PG* variables may come from it too.
 */
export function processEnvironment(cwd = process.cwd()): Env {
  const file = join(cwd, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
  return process.env;
}
