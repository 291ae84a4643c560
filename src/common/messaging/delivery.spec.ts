import { deliveryFor } from './delivery';

describe('deliveryFor', () => {
  const live = { name: 'live relay' };
  const staging = { name: 'staging relay' };

  it('never hands a test-mode message to the live relay', () => {
    expect(deliveryFor('test', { live })).toEqual({ to: 'capture' });
    expect(deliveryFor('test', { live, test: staging })).toEqual({ to: 'relay', relay: staging });
    expect(deliveryFor('test', {})).toEqual({ to: 'capture' });
  });

  it('sends live messages through the live relay, or logs them without one', () => {
    expect(deliveryFor('live', { live, test: staging })).toEqual({ to: 'relay', relay: live });
    expect(deliveryFor('live', { test: staging })).toEqual({ to: 'log' });
  });
});
