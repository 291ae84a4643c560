import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import { DependencyStatus, isUnavailable } from './dependency-status';

const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

describe('DependencyStatus', () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('keeps a role down until every connection that went down is back, whatever else connects meanwhile', () => {
    const status = new DependencyStatus();
    const [a, b] = [new EventEmitter(), new EventEmitter()];
    status.watchRedis(a, 'queue-workers');
    status.watchRedis(b, 'queue-workers');

    a.emit('error', refused());
    b.emit('ready'); // b finished connecting just before the outage reached it
    b.emit('error', refused());
    a.emit('ready');
    expect(status.states).toEqual([{ dependency: 'redis', role: 'queue-workers', up: false, downs: 1, ups: 0 }]);
    b.emit('ready');

    expect(status.states).toEqual([{ dependency: 'redis', role: 'queue-workers', up: true, downs: 1, ups: 1 }]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(log).toHaveBeenCalledTimes(1);
  });

  it('tells a PostgreSQL outage once and its end at the pool’s next new connection', () => {
    const status = new DependencyStatus();
    const pool = new EventEmitter();
    status.watchPostgres(pool, 'queries');
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

    expect(status.reportFailure(terminated)).toBe(true);
    expect(status.reportFailure(terminated)).toBe(true);
    expect(status.reportFailure(new Error('duplicate key'))).toBe(false);
    // A connection from before the outage handed out proves nothing: it may be one the server dropped.
    pool.emit('acquire');
    expect(status.states).toEqual([{ dependency: 'postgres', role: 'queries', up: false, downs: 1, ups: 0 }]);
    pool.emit('connect');

    expect(status.states).toEqual([{ dependency: 'postgres', role: 'queries', up: true, downs: 1, ups: 1 }]);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('takes a cluster client with no node to send to for Redis being away, and a cluster that refuses the commands for an error', () => {
    const status = new DependencyStatus();
    for (const message of [
      "Cluster isn't ready and enableOfflineQueue options is false",
      'None of startup nodes is available',
      'Failed to refresh slots cache.',
    ]) {
      expect(isUnavailable(new Error(message))).toBe(true);
      expect(status.reportFailure(new Error(message))).toBe(true);
    }
    // Not PostgreSQL's: nothing was marked down.
    expect(status.states).toEqual([]);
    for (const message of [
      "CROSSSLOT Keys in request don't hash to the same slot",
      'MOVED 3999 127.0.0.1:7001',
      'Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down',
    ]) {
      expect(isUnavailable(new Error(message))).toBe(false);
    }
  });
});
