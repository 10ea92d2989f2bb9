package testenv

// Prices is what AWS charges for the requests an AWSMeter counts, in US$.
type Prices struct {
	AsOf, Source string

	DynamoDBPerMillionWRU float64 // on-demand write request units
	DynamoDBPerMillionRRU float64 // on-demand read request units
	SQSPerMillionRequests float64 // standard queue, per 64 KB chunk of a request
	SNSPerMillionPublish  float64 // standard topic, per 64 KB chunk of a publish
}

// AWSPrices is the one price table the cost benchmark multiplies by: AWS's
// us-east-1 on-demand list prices as published in 2025 (no newer figure can
// be checked from here), without the free tier.
var AWSPrices = Prices{
	AsOf: "2025",
	Source: "AWS us-east-1 list prices, 2025: aws.amazon.com/dynamodb/pricing/on-demand, " +
		"aws.amazon.com/sqs/pricing, aws.amazon.com/sns/pricing",
	DynamoDBPerMillionWRU: 0.625,
	DynamoDBPerMillionRRU: 0.125,
	SQSPerMillionRequests: 0.40,
	SNSPerMillionPublish:  0.50,
}

// USD is what usage costs at p.
func (p Prices) USD(u Usage) float64 {
	return (u.WRU*p.DynamoDBPerMillionWRU + u.RRU*p.DynamoDBPerMillionRRU +
		u.SQSRequests*p.SQSPerMillionRequests + u.SNSPublishes*p.SNSPerMillionPublish) / 1e6
}
