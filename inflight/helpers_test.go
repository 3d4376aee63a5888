package inflight

import "github.com/ctxtrim/ctxtrim/history"

var formats = []history.Format{history.FormatResponses, history.FormatChat, history.FormatAnthropic}
