import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/**
 * The Lua scripts behind the Redis Store. Each runs atomically on the server, so `create`, compare-and-set,
 * version increments and conditional deletes hold among every process sharing the server.
 *
 * A record is a string holding its JSON envelope, always written in this field order:
 * `{"v":N,"updatedAt":T,"expiresAt":E,"value":...}` (`expiresAt` only when the record expires). The scripts read
 * the version and expiry from that head without decoding the value. Time is an argument (`now`), taken from the
 * store's clock, never from the server.
 *
 * The sorted set index holds every record's key with score 0, so `ZRANGEBYLEX` walks keys in byte order, which
 * for Mailpiece keys (ASCII only) is their UTF-16 code unit order.
 */

/** Shared helpers: parse the envelope head, decide liveness, build and write an envelope. */
const HELPERS = `
local function head(env)
  local v, updated, expires = string.match(env, '^{"v":(%d+),"updatedAt":([^,]+),"expiresAt":([^,]+),"value":')
  if v then return tonumber(v), tonumber(expires) end
  v = string.match(env, '^{"v":(%d+),"updatedAt":[^,]+,"value":')
  if v then return tonumber(v), nil end
  return nil, nil
end

local function live_version(env, now)
  if not env then return nil end
  local v, expires = head(env)
  if not v then return redis.error_reply('mailpiece: unreadable record envelope') end
  if expires and now >= expires then return nil end
  return v
end

local function write(key, index, member, version, updated, expires, pexpire, json)
  local env
  if expires == '' then
    env = '{"v":' .. string.format('%d', version) .. ',"updatedAt":' .. updated .. ',"value":' .. json .. '}'
    redis.call('SET', key, env)
  else
    env = '{"v":' .. string.format('%d', version) .. ',"updatedAt":' .. updated .. ',"expiresAt":' .. expires
      .. ',"value":' .. json .. '}'
    redis.call('SET', key, env, 'PX', pexpire)
  end
  redis.call('ZADD', index, 0, member)
end
`;

/**
 * KEYS: record, index. ARGV: member, now, updatedAt, expiresAt or '', pexpire, value JSON.
 * Returns {1} when it created the record, {0, envelope} when a live record was there.
 */
const CREATE = `${HELPERS}
local now = tonumber(ARGV[2])
local current = redis.call('GET', KEYS[1])
local v = live_version(current, now)
if type(v) == 'table' then return v end
if v then return {0, current} end
write(KEYS[1], KEYS[2], ARGV[1], 1, ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return {1}
`;

/**
 * KEYS: record, index. ARGV: member, now, updatedAt, expiresAt or '', pexpire, value JSON, ifVersion or ''.
 * Returns {version} when written, {-1, live version or 0} on a version conflict.
 */
const PUT = `${HELPERS}
local now = tonumber(ARGV[2])
local v = live_version(redis.call('GET', KEYS[1]), now)
if type(v) == 'table' then return v end
if ARGV[7] ~= '' and v ~= tonumber(ARGV[7]) then return {-1, v or 0} end
local version = (v or 0) + 1
write(KEYS[1], KEYS[2], ARGV[1], version, ARGV[3], ARGV[4], ARGV[5], ARGV[6])
return {version}
`;

/**
 * KEYS: record, index. ARGV: member, now, ifVersion or ''.
 * Returns {1} when a live record was removed, {0} when none was, {-1, live version or 0} on a version conflict.
 * An expired record is removed too, but counts as none.
 */
const DELETE = `${HELPERS}
local now = tonumber(ARGV[2])
local current = redis.call('GET', KEYS[1])
local v = live_version(current, now)
if type(v) == 'table' then return v end
if ARGV[3] ~= '' and v ~= tonumber(ARGV[3]) then return {-1, v or 0} end
redis.call('ZREM', KEYS[2], ARGV[1])
if current then redis.call('DEL', KEYS[1]) end
if v then return {1} end
return {0}
`;

/**
 * KEYS: index. ARGV: record key prefix, now, min, max (ZRANGEBYLEX bounds), limit.
 * Returns {more, key1, envelope1, key2, envelope2, ...}: up to `limit` live records in key order; `more` is 1 when
 * index entries follow the last one returned. Index entries whose record is gone are dropped; expired records are
 * removed with their entries.
 */
const LIST = `${HELPERS}
local index, prefix, now, min, max, limit = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
local out = {0}
local count = 0
local batch = 256
while true do
  local members = redis.call('ZRANGEBYLEX', index, min, max, 'LIMIT', 0, batch)
  for _, member in ipairs(members) do
    local env = redis.call('GET', prefix .. member)
    min = '(' .. member
    if not env then
      redis.call('ZREM', index, member)
    else
      local v = live_version(env, now)
      if type(v) == 'table' then return v end
      if v then
        out[#out + 1] = member
        out[#out + 1] = env
        count = count + 1
        if count >= limit then
          if #redis.call('ZRANGEBYLEX', index, min, max, 'LIMIT', 0, 1) > 0 then out[1] = 1 end
          return out
        end
      else
        redis.call('DEL', prefix .. member)
        redis.call('ZREM', index, member)
      end
    end
  end
  if #members < batch then return out end
end
`;

export interface Script {
  readonly source: string;
  readonly sha: string;
  readonly keys: number;
}

function script(source: string, keys: number): Script {
  return { source, sha: createHash("sha1").update(source).digest("hex"), keys };
}

export const scripts = {
  create: script(CREATE, 2),
  put: script(PUT, 2),
  delete: script(DELETE, 2),
  list: script(LIST, 1),
} as const;

/** Runs a script by its SHA, loading it when the server does not have it yet (a fresh or restarted server). */
export async function runScript(client: Redis, s: Script, args: Array<string | number>): Promise<unknown> {
  try {
    return await client.evalsha(s.sha, s.keys, ...args);
  } catch (error) {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
      return client.eval(s.source, s.keys, ...args);
    }
    throw error;
  }
}
