import { smsSegments } from './sms-segments';

describe('smsSegments', () => {
  it('counts GSM-7 text: 160 septets in one message, 153 per part after that', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', segments: 1, units: 0 });
    expect(smsSegments('Hi Ada, see you at 09:30 @ Acme £5 è')).toEqual({ encoding: 'GSM-7', segments: 1, units: 36 });
    expect(smsSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(smsSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, units: 161 });
    expect(smsSegments('a'.repeat(306))).toEqual({ encoding: 'GSM-7', segments: 2, units: 306 });
    expect(smsSegments('a'.repeat(307))).toEqual({ encoding: 'GSM-7', segments: 3, units: 307 });
    expect(smsSegments('a'.repeat(1530))).toEqual({ encoding: 'GSM-7', segments: 10, units: 1530 });
  });

  it('counts extension-table characters as two septets', () => {
    expect(smsSegments('€{}[]~\\|^\f')).toEqual({ encoding: 'GSM-7', segments: 1, units: 20 });
    // 80 euro signs are 160 septets: one message; 81 are 162: two.
    expect(smsSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(smsSegments('€'.repeat(81))).toEqual({ encoding: 'GSM-7', segments: 2, units: 162 });
  });

  it('never splits an escape pair across parts', () => {
    // 152 septets then a euro sign: the pair does not fit in the first part's last septet.
    expect(smsSegments(`${'a'.repeat(152)}€${'a'.repeat(152)}`)).toEqual({ encoding: 'GSM-7', segments: 3, units: 306 });
    expect(smsSegments(`${'a'.repeat(151)}€${'a'.repeat(153)}`)).toEqual({ encoding: 'GSM-7', segments: 2, units: 306 });
  });

  it('switches to UCS-2 for any character outside the GSM alphabet: 70 units, 67 per part', () => {
    expect(smsSegments('Привет')).toEqual({ encoding: 'UCS-2', segments: 1, units: 6 });
    expect(smsSegments(`${'a'.repeat(69)}é`)).toEqual({ encoding: 'GSM-7', segments: 1, units: 70 });
    expect(smsSegments(`${'a'.repeat(69)}ç`)).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    expect(smsSegments(`${'a'.repeat(70)}ç`)).toEqual({ encoding: 'UCS-2', segments: 2, units: 71 });
    expect(smsSegments('ж'.repeat(134))).toEqual({ encoding: 'UCS-2', segments: 2, units: 134 });
    expect(smsSegments('ж'.repeat(135))).toEqual({ encoding: 'UCS-2', segments: 3, units: 135 });
  });

  it('counts UTF-16 code units, an emoji as two, never split across parts', () => {
    expect(smsSegments('Hi 😀')).toEqual({ encoding: 'UCS-2', segments: 1, units: 5 });
    expect(smsSegments('😀'.repeat(35))).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    expect(smsSegments('😀'.repeat(36))).toEqual({ encoding: 'UCS-2', segments: 2, units: 72 });
    // 66 units then an emoji: it does not fit in the first part's last unit.
    expect(smsSegments(`${'ж'.repeat(66)}😀${'ж'.repeat(66)}`)).toEqual({ encoding: 'UCS-2', segments: 3, units: 134 });
  });
});
