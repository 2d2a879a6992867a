import { Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import {
  CreateAccountRequestSchema,
  statusAcknowledgement,
  type Account,
  type CreatedApiKey,
  type StatusAcknowledgement,
} from '@guidepost/contracts-http';
import { AcceptsBody, AdminTokenGuard, compileValidator, InboundBody } from '@guidepost/platform-http';
import { AccountAdministration } from '../application/account-administration.service';

const validateCreateAccount = compileValidator(CreateAccountRequestSchema);

/** Admin API for accounts and API keys (Bearer admin token). POSTs answer 201, the rest 200 (Nest's defaults). */
@Controller('admin/v1/accounts')
@UseGuards(AdminTokenGuard)
export class AdminAccountsController {
  constructor(private readonly administration: AccountAdministration) {}

  @Post()
  @AcceptsBody('json')
  create(@InboundBody() body: InboundBody): Promise<Account> {
    // No body at all is judged like `{}`, so the answer names the missing field.
    return this.administration.createAccount(validateCreateAccount(body.kind === 'json' ? body.value : {}));
  }

  @Get()
  list(): Promise<Account[]> {
    return this.administration.listAccounts();
  }

  @Post(':account_id/api_keys')
  createApiKey(@Param('account_id') accountId: string): Promise<CreatedApiKey> {
    return this.administration.createApiKey(accountId);
  }

  @Delete(':account_id/api_keys/:key')
  async revokeApiKey(@Param('account_id') accountId: string, @Param('key') key: string): Promise<StatusAcknowledgement> {
    await this.administration.revokeApiKey(accountId, key);
    return statusAcknowledgement();
  }
}
