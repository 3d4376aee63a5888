<?php

namespace App;

interface Payable
{
    public function pay(int $amount): bool;
}

trait Loggable
{
    public function log(string $msg): void {}
}

class Invoice implements Payable
{
    use Loggable;

    const CURRENCY = "EUR";

    private $total;

    public function __construct(int $total)
    {
        $this->total = $total;
    }

    public function pay(int $amount): bool
    {
        return format_amount($amount) > 0;
    }
}

function format_amount(int $amount): string
{
    return number_format($amount);
}
