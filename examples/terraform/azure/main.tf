# Two GPU VMs: the H100 node shuts down every evening, the A100 dev box never does.

resource "azurerm_linux_virtual_machine" "h100" {
  name                  = "h100-train"
  resource_group_name   = "ml"
  location              = "eastus"
  size                  = "Standard_ND96isr_H100_v5"
  admin_username        = "azureuser"
  network_interface_ids = ["/subscriptions/00000000-0000-0000-0000-000000000000/nic-h100"]

  os_disk {
    caching              = "ReadWrite"
    storage_account_type = "Premium_LRS"
  }
}

resource "azurerm_dev_test_global_vm_shutdown_schedule" "h100" {
  virtual_machine_id    = azurerm_linux_virtual_machine.h100.id
  location              = "eastus"
  enabled               = true
  daily_recurrence_time = "2000"
  timezone              = "UTC"

  notification_settings {
    enabled = false
  }
}

resource "azurerm_linux_virtual_machine" "a100_dev" {
  name                  = "a100-dev"
  resource_group_name   = "ml"
  location              = "eastus"
  size                  = "Standard_NC24ads_A100_v4"
  admin_username        = "azureuser"
  network_interface_ids = ["/subscriptions/00000000-0000-0000-0000-000000000000/nic-a100"]

  os_disk {
    caching              = "ReadWrite"
    storage_account_type = "Premium_LRS"
  }
}
