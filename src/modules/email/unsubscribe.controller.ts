import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/route-policy.decorator';
import { ApiProblemResponses } from '../../common/http/openapi';
import { NotFoundException } from '../../common/http/problem';
import { PatientsService } from '../patients/patients.service';
import { UnsubscribedDto } from './dto/unsubscribe.dto';
import { UnsubscribeTokens } from './unsubscribe-tokens';

@ApiTags('Email')
@Controller('public/unsubscribe')
export class UnsubscribeController {
  constructor(
    private readonly tokens: UnsubscribeTokens,
    private readonly patients: PatientsService,
  ) {}

  @Post(':token')
  @HttpCode(200)
  @Public()
  @RouteConfig({ formBody: true })
  @ApiOperation({
    operationId: 'unsubscribeFromEmail',
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      'The link in the `List-Unsubscribe` header of every message sent to a patient (with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`). No API key: the token is signed (HMAC under the application secret) and names one patient, whose `emailOptOut` becomes true; their later sends and sequence steps end `suppressed`. Mail clients post `List-Unsubscribe=One-Click` as application/x-www-form-urlencoded or multipart/form-data; the body is not needed and not read. Repeating it is harmless. An altered or unknown token is 404. Limited per client IP like every public route.',
  })
  @ApiParam({ name: 'token', description: 'The signed token from the List-Unsubscribe link' })
  @ApiOkResponse({ type: UnsubscribedDto })
  @ApiProblemResponses(404, 429)
  async unsubscribe(@Param('token') token: string): Promise<UnsubscribedDto> {
    const subject = this.tokens.verify(token);
    // A patient deleted since the message was sent has nothing left to opt out of: as unknown as a forged token.
    if (!subject || !(await this.patients.optOutOfEmail(subject, subject.patientId))) throw new NotFoundException('The unsubscribe link');
    return { message: 'Unsubscribed: no more email will be sent to this address by the practice' };
  }
}
