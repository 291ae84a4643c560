import { ApiProperty } from '@nestjs/swagger';

/** The answer to a one-click unsubscribe. */
export class UnsubscribedDto {
  @ApiProperty({ example: 'Unsubscribed: no more email will be sent to this address by the practice' })
  message!: string;
}
