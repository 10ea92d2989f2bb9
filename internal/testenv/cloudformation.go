package testenv

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/smithy-go"
)

// stackWait bounds the wait for a stack whose context has no deadline.
const stackWait = 30 * time.Minute

// The waiters poll between these delays rather than the SDK's 30 s to 2 min:
// an emulator is done at once, and tests are waiting.
const (
	stackPollMin = time.Second
	stackPollMax = 10 * time.Second
)

// maxWait is how long a waiter may wait within ctx: until its deadline, or
// stackWait.
func maxWait(ctx context.Context) (time.Duration, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return stackWait, nil
	}
	if d := time.Until(deadline); d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("no time left to wait: %w", context.DeadlineExceeded)
}

// DeployStack creates the CloudFormation stack stackName from the template
// file at templatePath, with params (parameter key to value; the template's
// defaults for the others) and CAPABILITY_IAM, through the endpoint of cfg.
// It waits, within ctx, until the stack is CREATE_COMPLETE and returns its
// outputs by key. A stack that ends otherwise (CREATE_FAILED, a rollback)
// fails with the reasons its events give. DeployStack never deletes the
// stack, not even a failed one: that is DeleteStack's.
func DeployStack(ctx context.Context, cfg aws.Config, templatePath, stackName string, params map[string]string) (outputs map[string]string, err error) {
	body, err := os.ReadFile(templatePath)
	if err != nil {
		return nil, fmt.Errorf("stack %s: %w", stackName, err)
	}
	var parameters []types.Parameter
	for _, key := range slices.Sorted(maps.Keys(params)) {
		parameters = append(parameters, types.Parameter{ParameterKey: aws.String(key), ParameterValue: aws.String(params[key])})
	}
	client := cloudformation.NewFromConfig(cfg)
	created, err := client.CreateStack(ctx, &cloudformation.CreateStackInput{
		StackName:    aws.String(stackName),
		TemplateBody: aws.String(string(body)),
		Parameters:   parameters,
		Capabilities: []types.Capability{types.CapabilityCapabilityIam},
	})
	if err != nil {
		return nil, fmt.Errorf("creating stack %s from %s: %w", stackName, templatePath, err)
	}
	// The stack's ID names this stack even once it is deleted; its name
	// would not.
	stackID := aws.ToString(created.StackId)
	wait, err := maxWait(ctx)
	if err != nil {
		return nil, fmt.Errorf("stack %s: %w", stackName, err)
	}
	out, err := cloudformation.NewStackCreateCompleteWaiter(client, func(o *cloudformation.StackCreateCompleteWaiterOptions) {
		o.MinDelay, o.MaxDelay = stackPollMin, stackPollMax
	}).WaitForOutput(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stackID)}, wait)
	if err != nil {
		return nil, fmt.Errorf("stack %s is not CREATE_COMPLETE: %w%s", stackName, err, stackFailure(ctx, client, stackID))
	}
	// The SDK's waiter also accepts the UPDATE_ states, which a new stack
	// cannot be in; still, only CREATE_COMPLETE is created.
	if len(out.Stacks) != 1 || out.Stacks[0].StackStatus != types.StackStatusCreateComplete {
		return nil, fmt.Errorf("stack %s is not CREATE_COMPLETE%s", stackName, stackFailure(ctx, client, stackID))
	}
	outputs = map[string]string{}
	for _, o := range out.Stacks[0].Outputs {
		outputs[aws.ToString(o.OutputKey)] = aws.ToString(o.OutputValue)
	}
	return outputs, nil
}

// stackFailure describes why the stack stackID did not come up: its status
// and reason, then those of each of its resources that failed, oldest
// first; or why that could not be read.
func stackFailure(ctx context.Context, client *cloudformation.Client, stackID string) string {
	// The wait may have ended because ctx did: the reasons are still wanted.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	var b strings.Builder
	stacks, err := client.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stackID)})
	if err != nil {
		return fmt.Sprintf("\n(describing the stack: %v)", err)
	}
	for _, s := range stacks.Stacks {
		fmt.Fprintf(&b, "\n%s %s", aws.ToString(s.StackName), s.StackStatus)
		if r := aws.ToString(s.StackStatusReason); r != "" {
			fmt.Fprintf(&b, ": %s", r)
		}
	}
	var events []types.StackEvent
	pages := cloudformation.NewDescribeStackEventsPaginator(client, &cloudformation.DescribeStackEventsInput{StackName: aws.String(stackID)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			fmt.Fprintf(&b, "\n(reading the stack's events: %v)", err)
			break
		}
		events = append(events, page.StackEvents...)
	}
	// The events come newest first.
	for _, e := range slices.Backward(events) {
		if strings.HasSuffix(string(e.ResourceStatus), "_FAILED") {
			fmt.Fprintf(&b, "\n  %s (%s) %s: %s", aws.ToString(e.LogicalResourceId), aws.ToString(e.ResourceType),
				e.ResourceStatus, aws.ToString(e.ResourceStatusReason))
		}
	}
	return b.String()
}

// DeleteStack deletes the CloudFormation stack stackName and waits, within
// ctx, until it is DELETE_COMPLETE. A stack that does not exist is deleted
// already. It deletes what the stack created, as CloudFormation does,
// and nothing else: whatever the endpoint leaves behind stays.
func DeleteStack(ctx context.Context, cfg aws.Config, stackName string) error {
	client := cloudformation.NewFromConfig(cfg)
	stacks, err := client.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stackName)})
	if err != nil {
		if notFound(err) {
			return nil
		}
		return fmt.Errorf("deleting stack %s: %w", stackName, err)
	}
	if len(stacks.Stacks) != 1 {
		return fmt.Errorf("deleting stack %s: %d stacks have that name", stackName, len(stacks.Stacks))
	}
	// Waiting on the ID, which still describes the stack once it is deleted.
	stackID := aws.ToString(stacks.Stacks[0].StackId)
	if _, err := client.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String(stackID)}); err != nil {
		return fmt.Errorf("deleting stack %s: %w", stackName, err)
	}
	wait, err := maxWait(ctx)
	if err != nil {
		return fmt.Errorf("deleting stack %s: %w", stackName, err)
	}
	err = cloudformation.NewStackDeleteCompleteWaiter(client, func(o *cloudformation.StackDeleteCompleteWaiterOptions) {
		o.MinDelay, o.MaxDelay = stackPollMin, stackPollMax
	}).Wait(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(stackID)}, wait)
	if err != nil {
		return fmt.Errorf("stack %s is not DELETE_COMPLETE: %w%s", stackName, err, stackFailure(ctx, client, stackID))
	}
	return nil
}

// notFound tells whether err says the stack does not exist, which
// CloudFormation reports as a ValidationError.
func notFound(err error) bool {
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode() == "ValidationError" &&
		strings.Contains(apiErr.ErrorMessage(), "does not exist")
}
